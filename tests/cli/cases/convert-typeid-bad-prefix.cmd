convert --to typeid --prefix 9lives 00000000-0000-0000-0000-000000000000

convert --to typeid 00000000-0000-0000-0000-000000000020 ffffffff-ffff-ffff-ffff-ffffffffffff

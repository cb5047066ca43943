convert --to typeid 104651375538868224

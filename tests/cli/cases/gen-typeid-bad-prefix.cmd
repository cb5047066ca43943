gen typeid --prefix User

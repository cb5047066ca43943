gen typeid --prefix user_

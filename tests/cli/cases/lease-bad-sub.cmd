lease frob

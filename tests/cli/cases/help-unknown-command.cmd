help frob

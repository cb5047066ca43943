block

lease acquire --range 9-3

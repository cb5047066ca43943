block --help

gen --help

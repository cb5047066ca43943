lease --help

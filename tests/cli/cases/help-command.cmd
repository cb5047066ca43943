help convert

inspect --yaml 1

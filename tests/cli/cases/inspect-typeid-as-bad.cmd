inspect --as ksuid 01h455vb4pex5vsknk084sn02q

inspect --json user_01h455vb4pex5vsknk084sn02q 7zzzzzzzzzzzzzzzzzzzzzzzzz --as typeid

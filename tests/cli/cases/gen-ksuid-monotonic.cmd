gen ksuid --monotonic

inspect --layout=sonyflake 42

migrate swap --table orders --max-rewrite-lock 5s

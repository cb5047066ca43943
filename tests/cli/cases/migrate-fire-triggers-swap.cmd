migrate swap --table orders --fire-triggers

migrate finish --table orders --after-row-type-change true

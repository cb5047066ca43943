migrate swap --table orders --before-row-type-change ''

gen objectid --node 3

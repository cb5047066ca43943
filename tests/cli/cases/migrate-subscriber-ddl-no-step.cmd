migrate subscriber-ddl --table orders

migrate subscriber-ddl backfill --table orders

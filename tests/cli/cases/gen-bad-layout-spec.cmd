gen snowflake --node 1 --layout 'time:41,node:10,seq:12;tick=0ms'

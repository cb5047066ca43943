inspect --layout 'time:41,node:10,seq:10' 1

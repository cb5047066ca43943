inspect --json --layout 'time:41,node:12,seq:10;epoch=2024-01-01;tick=1ms' 4198400005

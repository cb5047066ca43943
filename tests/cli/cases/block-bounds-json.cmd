block --bounds --json public.s 3

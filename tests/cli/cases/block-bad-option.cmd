block --size 3 public.s

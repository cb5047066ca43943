block public.s 1000000001

block public.s 3 4

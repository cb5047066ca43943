block public.s 0

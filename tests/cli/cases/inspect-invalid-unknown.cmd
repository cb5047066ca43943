inspect hello '' 'x y'

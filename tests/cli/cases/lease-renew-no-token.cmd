lease renew --node 3

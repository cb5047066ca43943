help gen

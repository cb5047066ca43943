gen

inspect

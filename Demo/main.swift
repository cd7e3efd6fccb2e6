print("kringle-demo")

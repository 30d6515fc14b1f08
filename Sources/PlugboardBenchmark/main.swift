// Replaced by the benchmark driver.
print("benchmark not written yet")

// Test targets that import KringleTesting get Kringle (and the promise API) too.
@_exported import Kringle

@_exported import Kringle

// `import Kringle` alone gives users the promise API too.
@_exported import KringlePromise

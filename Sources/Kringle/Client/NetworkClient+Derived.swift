extension NetworkClient {
    /// A client that shares this one's transport and cookie jar, with `interceptors` run
    /// after this client's own.
    ///
    /// The original client is unaffected. `maxRetryCount` is not inherited: the new client
    /// has exactly the limit given here.
    ///
    /// ```swift
    /// let authorised = client.newClient(withAdditionalInterceptors: [auth], maxRetryCount: 2)
    /// ```
    public func newClient(withAdditionalInterceptors interceptors: [any RequestInterceptor], maxRetryCount: Int?) -> NetworkClient {
        var configuration = configuration
        configuration.interceptors += interceptors
        configuration.maxRetryCount = maxRetryCount
        return NetworkClient(configuration: configuration, transport: transport)
    }

    /// A client that shares this one's transport, cookie jar and interceptors, and logs to
    /// `logger`.
    ///
    /// ```swift
    /// let verbose = client.newClient(withLogger: PrintLogger())
    /// ```
    public func newClient(withLogger logger: some KringleLogger) -> NetworkClient {
        var configuration = configuration
        configuration.logger = logger
        return NetworkClient(configuration: configuration, transport: transport)
    }
}

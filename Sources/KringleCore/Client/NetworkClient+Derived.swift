extension NetworkClient {
    /// A client that shares this one's transport, cookie jar and retry budget, with `interceptors` run
    /// after this client's own.
    ///
    /// The original client is unaffected. `maxRetryCount` is not inherited: the new client
    /// has exactly the limit given here, and none when it is left out (`nil`): its
    /// interceptors alone decide when to stop. That suits interceptors that give up by
    /// themselves, as ``AuthenticationInterceptor`` does after one refresh; ``RetryPolicy``
    /// has no limit of its own, so give it one here.
    ///
    /// ```swift
    /// let authorised = client.newClient(withAdditionalInterceptors: [auth])
    /// let resilient = client.newClient(withAdditionalInterceptors: [RetryPolicy()], maxRetryCount: 4)
    /// ```
    public func newClient(
        withAdditionalInterceptors interceptors: [any RequestInterceptor],
        maxRetryCount: Int? = nil
    ) -> NetworkClient {
        var configuration = configuration
        configuration.interceptors += interceptors
        configuration.maxRetryCount = maxRetryCount
        return NetworkClient(configuration: configuration, transport: transport)
    }

    /// A client that shares this one's transport, cookie jar, retry budget and interceptors, and logs to
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

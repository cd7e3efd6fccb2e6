import Foundation

/// The outcome of a callback-style request: exactly one of these reaches the completion.
public enum NetworkResult: Sendable {
    /// A response with an acceptable status.
    case success(Response<Data>)
    /// The request failed: a ``KringleError``, or the error an interceptor failed it with
    /// (a failed token refresh, say).
    case failure(any Error)
    /// The ``Disposable`` was disposed before the request finished.
    case cancelled

    /// The outcome as a `Result`, with cancellation as
    /// ``/KringlePromise/PromiseError/cancelled``.
    public var result: Result<Response<Data>, any Error> {
        switch self {
        case .success(let response): return .success(response)
        case .failure(let error): return .failure(error)
        case .cancelled: return .failure(PromiseError.cancelled)
        }
    }
}

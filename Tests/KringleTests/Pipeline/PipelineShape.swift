import Foundation
import Testing

@testable import Kringle

/// The two shapes of a client's pipeline, for tests that must pass in both.
///
/// `NetworkClient+Pipeline.swift` picks one by whether the client has interceptors: without, the
/// first hop's decision is made in the same step as the decode; with, the adapt and retry
/// stages run around the hops. The hops, redirects, cookies, validation and timeouts must
/// behave alike in either, so their tests take a shape as an argument.
enum PipelineShape: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// No interceptors, as the default client.
    case direct
    /// One interceptor that changes nothing: the adapt and retry stages run and decide
    /// nothing.
    case intercepted

    /// Puts `configuration` in this shape: ``intercepted`` adds a ``PassThroughInterceptor``
    /// after any interceptor already there; ``direct`` leaves it as it is.
    func apply(to configuration: inout NetworkClient.Configuration) {
        guard self == .intercepted else { return }
        configuration.interceptors.append(PassThroughInterceptor())
    }

    /// A configuration set by `configure`, then put in this shape.
    func configuration(
        _ configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) -> NetworkClient.Configuration {
        var configuration = NetworkClient.Configuration()
        configure(&configuration)
        apply(to: &configuration)
        return configuration
    }

    /// Each of `values` in each shape: for a test whose arguments are two collections
    /// already (Swift Testing combines at most two), the shape joins one of them.
    static func each<Value: Sendable>(_ values: [Value]) -> [Shaped<Value>] {
        values.flatMap { value in allCases.map { Shaped(value: value, shape: $0) } }
    }

    var testDescription: String { rawValue }
}

/// One of a test's arguments, and the pipeline shape to run it in.
struct Shaped<Value: Sendable>: Sendable, CustomTestStringConvertible {
    let value: Value
    let shape: PipelineShape

    var testDescription: String {
        let described = (value as? any CustomTestStringConvertible)?.testDescription ?? "\(value)"
        return "\(described), \(shape.testDescription)"
    }
}

/// An interceptor that keeps every default of ``RequestInterceptor``: it passes the request
/// on unchanged, marks no header as a credential and never asks for a retry. A client with
/// it behaves as one without; only the pipeline's shape differs.
struct PassThroughInterceptor: RequestInterceptor {}

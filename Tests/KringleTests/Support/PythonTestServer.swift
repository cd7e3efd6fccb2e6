import ChildProcess
import Dispatch
import Foundation
import KringleTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test server written in Python (a script under `Fixtures/`), started once per test
/// process: it binds its listeners to ports the system picks on 127.0.0.1, prints one line
/// of JSON naming them, and serves until the test process exits (`Fixtures/parent_exit.py`
/// watches its parent), so nothing has to stop it.
///
/// A server shared by many tests is a `Task` they all await, so that none blocks while it
/// starts:
///
/// ```swift
/// static let shared = Task { await PythonTestServer.start(script, expecting: ["port"]) }
/// let ports = try await shared.value.get()
/// ```
enum PythonTestServer {
    /// Starts `script` with `arguments` and returns the object of the JSON line it prints
    /// first, once it has every key of `expecting`. It waits for that line on a thread of
    /// its own (``onOwnThread(_:)``): Python may take seconds to start on a loaded machine.
    ///
    /// - Parameter interpreter: The Python to run it with: one that can import the script's
    ///   packages.
    static func start(
        _ script: URL, arguments: [String] = [], expecting keys: [String], interpreter: TestTool = .python3
    ) async -> Result<[String: Int], PythonTestServerError> {
        await onOwnThread { startAndWait(script, arguments: arguments, expecting: keys, interpreter: interpreter) }
    }

    /// ``start(_:arguments:expecting:interpreter:)``, blocking until the server reports.
    private static func startAndWait(
        _ script: URL, arguments: [String], expecting keys: [String], interpreter: TestTool
    ) -> Result<[String: Int], PythonTestServerError> {
        let python: String
        do {
            python = try interpreter.path()
        } catch {
            return .failure(PythonTestServerError("\(error)"))
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return .failure(PythonTestServerError("pipe failed: errno \(errno)")) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[0]) }
        let child: ChildProcess
        do {
            defer { close(ends[1]) }
            child = try ChildProcess(python, [script.path] + arguments, output: ends[1])
        } catch {
            return .failure(PythonTestServerError("could not start \(python): \(error)"))
        }
        // A server that never reports its ports is stopped, which ends the read below; a
        // generous bound, since Python may start slowly on a loaded machine.
        let watchdog = DispatchWorkItem { child.terminate(with: SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        defer { watchdog.cancel() }
        let line = readLine(ends[0])
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Int],
            keys.allSatisfy({ object[$0] != nil })
        else {
            child.terminate(with: SIGKILL)
            return .failure(
                PythonTestServerError(
                    "\(script.lastPathComponent) did not report its ports; it said: "
                        + String(decoding: line, as: UTF8.self)))
        }
        return .success(object)
    }

    /// Reads up to the first newline, or until the writer closes the pipe.
    private static func readLine(_ descriptor: Int32) -> Data {
        var data = Data()
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { return data }
                data.append(byte)
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }
}

/// Why a Python test server could not be started.
struct PythonTestServerError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

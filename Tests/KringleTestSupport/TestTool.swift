import ChildProcess
import Foundation
import Testing

/// A program some tests need that a fresh machine may lack: a real server (nginx), a real
/// proxy (tinyproxy, microsocks), a real HAR reader (haralyzer), or one of the commands the
/// tests run. `.ci/run` installs every one of them.
///
/// A test or suite that needs one says so with ``Testing/Trait/requires(_:)``: where the
/// program is missing it is skipped, the reason naming the package that brings it, and the
/// test process ends by counting the skips (``SkipReport``). With
/// `KRINGLE_REQUIRE_TEST_TOOLS=1` in the environment (`.ci/run` sets it) a missing program
/// fails the test instead, so CI runs everything or fails.
///
/// ```swift
/// @Suite(.requires(.tinyproxy)) struct HTTPProxyTests { … }
/// let binary = try TestTool.tinyproxy.path()
/// ```
public struct TestTool: Sendable, CustomStringConvertible {
    /// The program's name, as a person would say it.
    public let name: String
    /// The package that brings it.
    public let package: Package
    /// The program's path, or why it is not here.
    private let located: Result<String, Missing>

    /// Why a test cannot run: the tool and how to install it.
    public struct Missing: Error, CustomStringConvertible {
        /// What is missing and how to install it.
        public let description: String
    }

    /// Looks for the first of `candidates` that is an executable file (a bare name is looked
    /// for in the usual places, then on `PATH`), and, when given, that passes `check`.
    init(_ name: String, package: Package, candidates: [String]? = nil, check: ((String) -> Bool)? = nil) {
        self.name = name
        self.package = package
        let found = (candidates ?? [name]).lazy.flatMap(Self.places).first(where: FileManager.default.isExecutableFile)
        if let found, check?(found) ?? true {
            located = .success(found)
        } else {
            located = .failure(Missing(description: "\(name) is not installed (\(package.installCommand))"))
        }
    }

    /// Whether the program is here.
    public var isInstalled: Bool {
        (try? located.get()) != nil
    }

    /// The program's path.
    ///
    /// - Throws: ``Missing``, naming the package that brings it.
    public func path() throws(Missing) -> String {
        try located.get()
    }

    /// "nginx (apt-get install -y nginx-light)".
    public var description: String {
        "\(name) (\(package.installCommand))"
    }

    /// A package in the registry that has it.
    public enum Package: Sendable, Hashable {
        /// A Debian package.
        case debian(String)
        /// A Python package from PyPI.
        case pypi(String)

        /// The package's name.
        public var name: String {
            switch self {
            case .debian(let name), .pypi(let name): return name
            }
        }

        /// The command that installs it.
        public var installCommand: String {
            Self.installCommand(for: [self])
        }

        /// One line that installs all of `packages`: `apt-get` for Debian's, then `pip`.
        public static func installCommand(for packages: [Package]) -> String {
            let debian = packages.compactMap { if case .debian(let name) = $0 { name } else { nil } }
            let pypi = packages.compactMap { if case .pypi(let name) = $0 { name } else { nil } }
            return [
                debian.isEmpty ? nil : "apt-get install -y " + debian.joined(separator: " "),
                pypi.isEmpty ? nil : "python3 -m pip install " + pypi.joined(separator: " "),
            ].compactMap { $0 }.joined(separator: " && ")
        }
    }

    /// Where a program named `candidate` may be: the usual folders (where `.ci/run` installs
    /// it), then `PATH`; an absolute path as it is.
    private static func places(_ candidate: String) -> [String] {
        guard !candidate.hasPrefix("/") else { return [candidate] }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = ["/usr/sbin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/local/bin", "/opt/homebrew/bin"]
        return (folders + path.split(separator: ":").map(String.init)).map { "\($0)/\(candidate)" }
    }
}

extension TestTool {
    /// nginx, for HTTP/2, h2c, Unix sockets and the request-path probe.
    public static let nginx = TestTool("nginx", package: .debian("nginx-light"))
    /// tinyproxy, an HTTP proxy (the program without the service).
    public static let tinyproxy = TestTool("tinyproxy", package: .debian("tinyproxy-bin"))
    /// microsocks, a SOCKS5 proxy.
    public static let microsocks = TestTool("microsocks", package: .debian("microsocks"))
    /// Python 3, which runs the TLS and inflating test servers.
    public static let python3 = TestTool("python3", package: .debian("python3"))
    /// The `curl` command line, which checks what Kringle's own curl command lines do.
    public static let curl = TestTool("curl", package: .debian("curl"))
    /// `gzip`, which inflates what Kringle compressed.
    public static let gzip = TestTool("gzip", package: .debian("gzip"))
    /// `openssl`, which computes certificate pins.
    public static let openssl = TestTool("openssl", package: .debian("openssl"))
    /// A `python3` that can import haralyzer (PyPI), a HAR reader no one here wrote: its path
    /// is that Python's. `PATH`'s first, where a virtual environment would put it.
    public static let haralyzer: TestTool = {
        let onPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/python3" }
        return TestTool(
            "haralyzer", package: .pypi("haralyzer"), candidates: onPath + ["python3"],
            check: { python in (try? ChildProcess.run(python, ["-c", "import haralyzer"]).status) == 0 })
    }()

    /// A `python3` that can import websockets (PyPI), the WebSocket server the interop tests
    /// talk to.
    public static let websockets: TestTool = {
        let onPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/python3" }
        return TestTool(
            "websockets", package: .pypi("websockets"), candidates: onPath + ["python3"],
            check: { python in (try? ChildProcess.run(python, ["-c", "import websockets.asyncio.server"]).status) == 0 }
        )
    }()

    /// Whether a missing tool fails the run rather than skipping its tests
    /// (`KRINGLE_REQUIRE_TEST_TOOLS=1`, which `.ci/run` sets).
    static var mustBePresent: Bool {
        ProcessInfo.processInfo.environment["KRINGLE_REQUIRE_TEST_TOOLS"] == "1"
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test or suite only where every one of `tools` is installed; elsewhere it is
    /// skipped with a reason naming the packages, or fails under
    /// `KRINGLE_REQUIRE_TEST_TOOLS=1`.
    public static func requires(_ tools: TestTool...) -> Self {
        let reason = tools.map(\.description).joined(separator: ", ")
        return .enabled("needs \(reason)") {
            let missing = tools.filter { !$0.isInstalled }
            guard missing.isEmpty else {
                if TestTool.mustBePresent {
                    throw TestTool.Missing(
                        description: "KRINGLE_REQUIRE_TEST_TOOLS=1 and this test needs what is not installed: "
                            + missing.map(\.description).joined(separator: ", "))
                }
                SkipReport.shared.skipped(for: missing)
                return false
            }
            return true
        }
    }
}

import Foundation
import Kringle
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("RFC 9111 §5.2 Cache-Control")
struct CacheControlTests {
    /// One field value and the directives it holds, written `name` or `name=argument`.
    struct Parsing: Sendable, CustomTestStringConvertible {
        let field: String
        let directives: [String]

        init(_ field: String, _ directives: [String]) {
            self.field = field
            self.directives = directives
        }

        var testDescription: String { field.isEmpty ? "(empty)" : field }
    }

    static let parsings: [Parsing] = [
        Parsing("max-age=60", ["max-age=60"]),
        Parsing("no-cache", ["no-cache"]),
        Parsing("Max-Age=60, NO-CACHE, Must-Revalidate", ["max-age=60", "no-cache", "must-revalidate"]),
        Parsing(#"private="Set-Cookie, X-Token", max-age=5"#, ["private=Set-Cookie, X-Token", "max-age=5"]),
        Parsing(#"ext="a \"quoted\" \\ word", public"#, [#"ext=a "quoted" \ word"#, "public"]),
        Parsing(#"ext="\a\b""#, ["ext=ab"]),
        Parsing(#"max-age="60""#, ["max-age=60"]),
        Parsing(#"ext="", public"#, ["ext=", "public"]),
        Parsing(" , ,no-store,, max-age=5 ,", ["no-store", "max-age=5"]),
        Parsing("no-cache\t,\tmust-revalidate", ["no-cache", "must-revalidate"]),
        Parsing("max-age = 60 , public", ["max-age=60", "public"]),
        Parsing("max-age=60 junk, public", ["max-age=60", "public"]),
        Parsing(#"ext="closed"junk, public"#, ["ext=closed", "public"]),
        Parsing(#"ext="never closed, public"#, ["ext=never closed, public"]),
        Parsing("=5, public", ["public"]),
        Parsing("max-age=, public", ["max-age=", "public"]),
        Parsing("Ext=MiXeD", ["ext=MiXeD"]),
        Parsing("", []),
        Parsing(",,, ", []),
    ]

    private static func written(_ directives: CacheControl) -> [String] {
        directives.directives.map { $0.name + ($0.argument.map { "=" + $0 } ?? "") }
    }

    @Test("§5.2 names are case-insensitive, arguments are tokens or unquoted quoted-strings", arguments: parsings)
    func parsing(_ parsing: Parsing) {
        #expect(Self.written(CacheControl(parsing.field)) == parsing.directives)
    }

    @Test("§5.2 the directives of several field lines are read in order, any case of the field name")
    func severalLines() {
        let headers = HTTPHeaders([
            ("Cache-Control", "no-cache"), ("X-Other", "max-age=1"), ("cache-control", "max-age=5, private"),
            ("CACHE-CONTROL", "must-revalidate"),
        ])
        #expect(Self.written(CacheControl(headers)) == ["no-cache", "max-age=5", "private", "must-revalidate"])
        #expect(CacheControl(HTTPHeaders()).directives.isEmpty)
    }

    @Test("§4.2.1 where a directive appears twice, the first occurrence counts, on one line or across lines")
    func firstOccurrenceWins() {
        #expect(CacheControl("max-age=5, max-age=60").seconds("max-age") == 5)
        #expect(CacheControl("max-age=abc, max-age=60").seconds("max-age") == 0)
        #expect(CacheControl(#"private="A", private="B""#).argument("private") == "A")
        let lines = HTTPHeaders([("Cache-Control", "max-age=60"), ("Cache-Control", "max-age=5")])
        #expect(CacheControl(lines).seconds("max-age") == 60)
    }

    @Test("§5.2 contains and argument look names up as given, lower-case")
    func lookUp() {
        let directives = CacheControl("PUBLIC, no-cache=\"Set-Cookie\", max-stale")
        #expect(directives.contains("public"))
        #expect(directives.contains("no-cache"))
        #expect(directives.contains("max-stale"))
        #expect(!directives.contains("private"))
        #expect(directives.argument("no-cache") == "Set-Cookie")
        #expect(directives.argument("max-stale") == nil)
        #expect(directives.argument("public") == nil)
        #expect(directives.seconds("max-age") == nil)
    }

    /// A `max-age` argument and the delta-seconds it counts as.
    struct DeltaSeconds: Sendable, CustomTestStringConvertible {
        let field: String
        let seconds: Int

        init(_ field: String, _ seconds: Int) {
            self.field = field
            self.seconds = seconds
        }

        var testDescription: String { field }
    }

    static let deltaSecondsExamples: [DeltaSeconds] = [
        DeltaSeconds("max-age=60", 60),
        DeltaSeconds("max-age=0", 0),
        DeltaSeconds("max-age=007", 7),
        DeltaSeconds(#"max-age="120""#, 120),
        DeltaSeconds("max-age", 0),
        DeltaSeconds("max-age=", 0),
        DeltaSeconds("max-age=-1", 0),
        DeltaSeconds("max-age=+5", 0),
        DeltaSeconds("max-age=1.5", 0),
        DeltaSeconds("max-age=1e3", 0),
        DeltaSeconds("max-age=sixty", 0),
        DeltaSeconds("max-age=0x10", 0),
        DeltaSeconds("max-age=2147483647", 2_147_483_647),
        DeltaSeconds("max-age=2147483648", 2_147_483_648),
        DeltaSeconds("max-age=2147483649", 2_147_483_648),
        DeltaSeconds("max-age=9223372036854775807", 2_147_483_648),
        DeltaSeconds("max-age=99999999999999999999999999999", 2_147_483_648),
    ]

    @Test(
        "§1.2.2 delta-seconds: digits only, anything else 0 (stale), too large 2^31",
        arguments: deltaSecondsExamples)
    func deltaSeconds(_ example: DeltaSeconds) {
        #expect(CacheControl(example.field).seconds("max-age") == example.seconds)
    }

    @Test(
        "§1.2.2 an Age value is read as delta-seconds too",
        arguments: [
            ("30", 30), (" 30 ", 30), ("", 0), ("-30", 0), ("30s", 0), ("3 0", 0), ("4294967296", 2_147_483_648),
        ])
    func ageValue(_ text: String, _ seconds: Int) {
        #expect(CacheControl.deltaSeconds(text) == seconds)
    }

    @Test("§5.2 two fields with the same directives compare equal, however they were written")
    func equality() {
        #expect(CacheControl("no-cache, max-age=5") == CacheControl(#"NO-CACHE,max-age="5""#))
        #expect(CacheControl("no-cache, max-age=5") != CacheControl("max-age=5, no-cache"))
        #expect(CacheControl("private") != CacheControl(#"private="Set-Cookie""#))
        #expect(CacheControl(HTTPHeaders([("Cache-Control", "a"), ("Cache-Control", "b")])) == CacheControl("a, b"))
    }
}

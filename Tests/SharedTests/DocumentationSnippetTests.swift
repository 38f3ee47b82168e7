import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every Swift snippet of the README, the DocC articles and the documentation comments is real code: it appears, as
/// written, in a file the tests compile (most in `Tests/SharedTests/Snippets/`).
///
/// A snippet matches when its text, with whitespace and trailing commas ignored (the formatter may move either),
/// is part of one snippet file. Snippets must also be valid where they are shown: a property wrapper such as
/// `@Shared(...) var` is not allowed at the top level of code (Swift rejects it in `main.swift`), so a snippet shows
/// it inside a type or a function.
@Suite struct DocumentationSnippetTests {
  /// The package's root folder, from this file's place in it.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func everySnippetIsCompiledByTheTests() throws {
    let corpus = try Self.snippetFiles().map { SnippetFile(try String(contentsOf: $0, encoding: .utf8)) }
    let missing = try Self.snippets().filter { snippet in
      let searched = SearchedSnippet(snippet.code)
      return !corpus.contains { $0.contains(searched) }
    }
    if !missing.isEmpty {
      let list = missing.map(\.description).joined(separator: "\n")
      Issue.record(
        "\(missing.count) snippets are not compiled by the tests (add them to Tests/SharedTests/Snippets):\n\(list)")
    }
  }

  @Test func noSnippetDeclaresAPropertyWrapperAtTheTopLevel() throws {
    let offending = try Self.snippets().filter { snippet in
      snippet.code.split(separator: "\n").contains { $0.hasPrefix("@Shared(") || $0.hasPrefix("@SharedReader(") }
    }
    if !offending.isEmpty {
      let list = offending.map(\.description).joined(separator: "\n")
      Issue.record("\(offending.count) snippets declare a property wrapper at the top level:\n\(list)")
    }
  }

  /// The checker itself finds snippets in each kind of source, and tells a snippet file's text from other text.
  @Test func theCheckerFindsSnippetsInEveryKindOfSource() throws {
    let snippets = try Self.snippets()
    #expect(snippets.contains { $0.file == "README.md" })
    #expect(snippets.contains { $0.file.hasSuffix(".docc/SharedState.md") })
    #expect(snippets.contains { $0.file.hasSuffix("Shared.swift") })
    #expect(Self.squeezed("a(b,\n  c,\n)") == Self.squeezed("a(b, c)"))
    #expect(Self.squeezed("let x = 1") != Self.squeezed("let y = 1"))
    #expect(SnippetFile("import A\nlet b = 1\nf(b)").contains("import A\n\nlet b = 1"))
    #expect(!SnippetFile("import A\nlet b = 1").contains("import B\nlet b = 1"))
    // The byte search: at the start, at the very end, a first byte that recurs, and a snippet cut off by the end.
    #expect(SnippetFile("f(a)\ng(b)").contains("f(a)"))
    #expect(SnippetFile("f(a)\ng(b)").contains("g(b)"))
    #expect(SnippetFile("ggg(b)").contains("g(b)"))
    #expect(!SnippetFile("f(a)\ng(b").contains("g(b)"))
    #expect(!SnippetFile("let b = 1").contains("let b = 2"))
  }

  struct Snippet: CustomStringConvertible {
    let file: String
    let line: Int
    let code: String
    var description: String {
      "  \(file):\(line): \(code.split(separator: "\n").first.map(String.init) ?? "")"
    }
  }

  /// The snippets of the README, of every DocC catalog's articles, and of the documentation comments in Sources.
  static func snippets() throws -> [Snippet] {
    var snippets = try markdownSnippets(in: root.appending(path: "README.md"))
    let sources = root.appending(path: "Sources")
    for file in try files(under: sources) {
      if file.pathExtension == "md" && file.path.contains(".docc/") {
        snippets += try markdownSnippets(in: file)
      } else if file.pathExtension == "swift" {
        snippets += try commentSnippets(in: file)
      }
    }
    return snippets
  }

  /// The files a snippet may be found in: every Swift file of the tests (most snippets live in `Snippets/`).
  /// The test files: this package's, and the integrations' (a README snippet of an integration is compiled by its own
  /// package's tests).
  static func snippetFiles() throws -> [URL] {
    var folders = [root.appending(path: "Tests")]
    let integrations = root.appending(path: "Integrations")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: integrations.path)) ?? []
    folders += names.sorted().map { integrations.appending(path: $0).appending(path: "Tests") }
    return try folders.flatMap { try files(under: $0) }.filter { $0.pathExtension == "swift" }
  }

  private static func files(under folder: URL) throws -> [URL] {
    guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
      return []
    }
    return enumerator.compactMap { $0 as? URL }.sorted { $0.path < $1.path }
  }

  private static func relative(_ file: URL) -> String {
    String(file.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
  }

  /// Fenced ```swift blocks of a Markdown file.
  static func markdownSnippets(in file: URL) throws -> [Snippet] {
    let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
    return fencedBlocks(lines, in: relative(file))
  }

  /// Fenced ```swift blocks of `///` documentation comments.
  static func commentSnippets(in file: URL) throws -> [Snippet] {
    let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n").map { line -> String in
      let trimmed = line.drop { $0 == " " }
      guard trimmed.hasPrefix("///") else { return "" }
      let text = trimmed.dropFirst(3)
      return String(text.hasPrefix(" ") ? text.dropFirst() : text)
    }
    return fencedBlocks(lines, in: relative(file))
  }

  private static func fencedBlocks(_ lines: [String], in file: String) -> [Snippet] {
    var snippets: [Snippet] = []
    var start: Int?
    var code: [String] = []
    for (index, line) in lines.enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if let first = start {
        if trimmed == "```" {
          snippets.append(Snippet(file: file, line: first + 1, code: code.joined(separator: "\n")))
          start = nil
        } else {
          code.append(line)
        }
      } else if trimmed == "```swift" {
        start = index
        code = []
      }
    }
    return snippets
  }

  /// A file snippets may be found in: its imports, and its text without whitespace, as bytes.
  struct SnippetFile {
    let imports: Set<Substring>
    let text: [UInt8]

    init(_ file: String) {
      imports = Set(file.split(separator: "\n").filter { $0.hasPrefix("import ") })
      text = Array(squeezed(file).utf8)
    }

    /// Whether the file holds `snippet`: its imports anywhere in the file (imports go at the top, once), and the
    /// rest as written.
    func contains(_ snippet: String) -> Bool {
      contains(SearchedSnippet(snippet))
    }

    func contains(_ snippet: SearchedSnippet) -> Bool {
      guard snippet.imports.allSatisfy(imports.contains) else { return false }
      let code = snippet.code
      guard !code.isEmpty else { return true }
      guard code.count <= text.count else { return false }
      // The C library's byte search: a debug build's loop over slices took minutes for every snippet in every file
      // on a busy machine.
      return text.withUnsafeBytes { text in
        code.withUnsafeBytes { code in
          guard let base = text.baseAddress, let needle = code.baseAddress else { return false }
          let last = text.count - code.count  // The last place the snippet can start.
          var start = 0
          while start <= last {
            // The next place its first byte occurs, then the whole snippet compared there.
            guard let found = memchr(base + start, Int32(code[0]), last - start + 1) else { return false }
            let offset = base.distance(to: UnsafeRawPointer(found))
            if memcmp(found, needle, code.count) == 0 { return true }
            start = offset + 1
          }
          return false
        }
      }
    }
  }

  /// A snippet as it is searched for: its imports, and the rest without whitespace, as bytes.
  struct SearchedSnippet {
    let imports: [Substring]
    let code: [UInt8]

    init(_ snippet: String) {
      let lines = snippet.split(separator: "\n", omittingEmptySubsequences: false)
      imports = lines.filter { $0.hasPrefix("import ") }
      code = Array(squeezed(lines.filter { !$0.hasPrefix("import ") }.joined(separator: "\n")).utf8)
    }
  }

  /// The text without whitespace and without trailing commas, so formatting does not matter.
  static func squeezed(_ text: String) -> String {
    var result = String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
    result = result.replacingOccurrences(of: ",)", with: ")")
    result = result.replacingOccurrences(of: ",]", with: "]")
    return result
  }
}

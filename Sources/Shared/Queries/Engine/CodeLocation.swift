/// Where a piece of code is written: a file and a line, as `#fileID` and `#line` give them.
///
/// Tells two fetchers for one query key apart, and names them in the conflict diagnostic.
struct CodeLocation: Hashable, Sendable, CustomStringConvertible {
  /// The file, as `#fileID` names it: `Module/File.swift`.
  let fileID: String
  /// The line in the file.
  let line: Int

  /// `Module/File.swift:12`.
  var description: String { "\(fileID):\(line)" }
}

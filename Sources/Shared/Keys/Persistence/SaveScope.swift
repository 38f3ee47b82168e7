/// The value whose key's save runs in the current task, so an update the key reports from inside its own save is
/// known as what the store holds after that save.
enum SaveScope {
  @TaskLocal static var persistence: ObjectIdentifier?
}

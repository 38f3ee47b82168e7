public import Synchronization

#if REACTIVE_TSAN
  import Foundation
#endif

/// The lock every type of the framework uses: a `Mutex` whose critical sections ThreadSanitizer can see.
///
/// On Linux, `Mutex` waits on a futex that ThreadSanitizer does not intercept, so it reports the state a mutex
/// protects as raced. Builds made with `-Xswiftc -DREACTIVE_TSAN` tell ThreadSanitizer about each acquire and release;
/// other builds compile to the bare `Mutex`.
@usableFromInline
package struct Lock<State: ~Copyable>: ~Copyable, Sendable {
  @usableFromInline
  let mutex: Mutex<State>
  #if REACTIVE_TSAN
    @usableFromInline
    let token = RaceToken()
  #endif

  /// A lock guarding `initialState`.
  @inlinable
  package init(_ initialState: consuming sending State) {
    mutex = Mutex(initialState)
  }

  /// Runs `body` with the state, under the lock.
  @inlinable
  package borrowing func withLock<Result: ~Copyable, Failure: Error>(
    _ body: (inout sending State) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    #if REACTIVE_TSAN
      return try mutex.withLock { (state: inout sending State) throws(Failure) -> sending Result in
        RaceToken.acquire(token)
        defer { RaceToken.release(token) }
        return try body(&state)
      }
    #else
      return try mutex.withLock(body)
    #endif
  }

  /// Runs `body` with the state, under the lock, and returns its `result`; what it hands back as `released` (what
  /// the state let go: a replaced value, removed observers, withdrawn work) is released after the lock.
  ///
  /// Nothing of a program's is released under a lock (a deinit is the program's code, and may take this lock): a
  /// critical section that lets something go returns it here.
  @inlinable
  package borrowing func withLockReleasingAfter<Result, Released>(
    _ body: (inout sending State) -> sending (result: Result, released: Released)
  ) -> sending Result {
    let (result, released) = withLock(body)
    withExtendedLifetime(released) {}  // The one place the released values go: here, after the lock.
    return result
  }
}

#if REACTIVE_TSAN
  /// An address that stands for one lock in ThreadSanitizer's annotations.
  @usableFromInline
  package final class RaceToken: Sendable {
    private typealias Annotation = @convention(c) (UnsafeMutableRawPointer?) -> Void

    // Looked up once; `nil` when the program runs without ThreadSanitizer.
    private static let annotations: (acquire: Annotation, release: Annotation)? = {
      let program = dlopen(nil, RTLD_NOW)
      guard let acquire = dlsym(program, "__tsan_acquire"), let release = dlsym(program, "__tsan_release") else {
        return nil
      }
      return (unsafeBitCast(acquire, to: Annotation.self), unsafeBitCast(release, to: Annotation.self))
    }()

    @usableFromInline
    init() {}

    @usableFromInline
    static func acquire(_ token: RaceToken) {
      annotations?.acquire(Unmanaged.passUnretained(token).toOpaque())
    }

    @usableFromInline
    static func release(_ token: RaceToken) {
      annotations?.release(Unmanaged.passUnretained(token).toOpaque())
    }
  }
#endif

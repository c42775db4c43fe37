import Foundation

extension AVAssetImageGenerator {
    /// The images of ``AVAssetImageGenerator/images(for:)``, one element per requested time, in the order
    /// requested; iterated with `for await`, without `try` (a failed time is a
    /// ``Element/failure(requestedTime:error:)`` element).
    ///
    /// The sequence is its own iterator. It generates each image when `next()` asks for it: one picture
    /// reader (an open container and decoder) serves every time, seeking only where decoding forward
    /// would cost more. When the iterating task is cancelled, the image in progress stops and ``next()``
    /// returns nil; the sequence also ends after its last time. Work runs on the engine's threads.
    public struct Images: AsyncSequence, AsyncIteratorProtocol, Sendable {
        /// Iterating never throws: a failed time is a ``Element/failure(requestedTime:error:)`` element.
        public typealias Failure = Never

        /// One requested time's outcome.
        public enum Element: Sendable {
            /// The image for `requestedTime`, whose picture shows from `actualTime` in the asset.
            case success(requestedTime: CMTime, image: CGImage, actualTime: CMTime)
            /// No image for `requestedTime`; `error` says why (an ``AVError``, such as
            /// ``AVError/Code-swift.enum/noImageAtTime``).
            case failure(requestedTime: CMTime, error: any Error)

            /// The time asked for.
            public var requestedTime: CMTime {
                switch self {
                case .success(let time, _, _), .failure(let time, _): return time
                }
            }

            /// The image; throws the failure's error.
            public var image: CGImage {
                get throws {
                    switch self {
                    case .success(_, let image, _): return image
                    case .failure(_, let error): throw error
                    }
                }
            }

            /// When the image's picture shows in the asset; throws the failure's error.
            public var actualTime: CMTime {
                get throws {
                    switch self {
                    case .success(_, _, let time): return time
                    case .failure(_, let error): throw error
                    }
                }
            }
        }

        private let run: ImageRun

        init(_ run: ImageRun) {
            self.run = run
        }

        /// The sequence itself: it is its own iterator.
        public func makeAsyncIterator() -> Images { self }

        /// The next time's outcome, generated now on the engine's threads.
        ///
        /// - Returns: The outcome for the next requested time; nil after the last one, or once the
        ///   iterating task is cancelled.
        public mutating func next() async -> Element? {
            await run.next()
        }
    }
}

internal import CSDL2
import Foundation

/// A window showing BGRA pictures, through SDL2 (X11 or Wayland, whatever SDL finds), for `avtool play
/// --video`. Not thread-safe, and SDL wants its video calls on one thread: make it, show pictures and
/// read its events on one thread of your own (never Swift's cooperative pool, whose tasks hop threads).
package final class VideoWindow {
    /// What the window was asked for.
    package enum Event: Equatable {
        /// Closed.
        case quit
        /// A key: its character (space, q, + and -), or the left and right arrows.
        case key(Character)
        case left, right
    }

    /// SDL could not start or make the window (no display, most often).
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    private let window: OpaquePointer
    /// SDL's software renderer, made for the first picture that must be turned or scaled; until then
    /// pictures go straight into the window's own pixels.
    private var renderer: OpaquePointer?
    private var texture: OpaquePointer?
    private var textureSize = (width: 0, height: 0)
    package let width: Int
    package let height: Int

    /// Opens a `width` x `height` window titled `title`. Throws where there is no display: neither X
    /// (`DISPLAY`) nor Wayland (`WAYLAND_DISPLAY`), unless `SDL_VIDEODRIVER` names a driver. (SDL would
    /// otherwise fall back to drawing off screen, and say nothing.)
    package init(title: String, width: Int, height: Int) throws {
        let environment = ProcessInfo.processInfo.environment
        if environment["SDL_VIDEODRIVER"] == nil {
            let drivers = [environment["DISPLAY"].map { _ in "x11" }, environment["WAYLAND_DISPLAY"].map { _ in "wayland" }].compactMap { $0 }
            guard !drivers.isEmpty else { throw Failure(description: "no display: neither DISPLAY nor WAYLAND_DISPLAY is set") }
            SDL_SetHint(SDL_HINT_VIDEODRIVER, drivers.joined(separator: ","))
        }
        // The window's pixels go to the X server as they are (shared memory), not through OpenGL: without
        // a GPU (Xvfb, a server) SDL would present them through Mesa's software rasteriser, which cost
        // more CPU than decoding the movie.
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0")
        guard SDL_InitSubSystem(UInt32(SDL_INIT_VIDEO)) == 0 else { throw Failure(description: VideoWindow.lastError) }
        _ = VideoWindow.keepsVideoLoaded
        let w = Int32(clamping: max(1, width)), h = Int32(clamping: max(1, height))
        guard let made = avocet_sdl_window(title, w, h) else {
            let error = VideoWindow.lastError
            SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
            throw Failure(description: error)
        }
        window = made
        (self.width, self.height) = (Int(w), Int(h))
        // Black until the first picture.
        if let surface = SDL_GetWindowSurface(window) {
            SDL_FillRect(surface, nil, SDL_MapRGB(surface.pointee.format, 0, 0, 0))
            SDL_UpdateWindowSurface(window)
        } else {
            guard let renderer = softwareRenderer() else {
                let error = VideoWindow.lastError
                SDL_DestroyWindow(made)
                SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
                throw Failure(description: error)
            }
            SDL_RenderClear(renderer)
            SDL_RenderPresent(renderer)
        }
    }

    deinit {
        if let texture { SDL_DestroyTexture(texture) }
        if let renderer { SDL_DestroyRenderer(renderer) }
        SDL_DestroyWindow(window)
        SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
    }

    /// One more reference to SDL's video subsystem, taken with the first window and never given back,
    /// so that closing a window never quits the subsystem: quitting it unloads the X11 libraries SDL
    /// opened with dlopen while the process goes on. `avtool play --video` crashed once in CI after its
    /// window had closed, on the thread that was ending the process, with a jump into memory no library
    /// held; not reproduced since (40 runs under load), and the unload is the likeliest cause, so the
    /// libraries now stay until the process ends. Windows still close at once.
    private static let keepsVideoLoaded: Bool = SDL_InitSubSystem(UInt32(SDL_INIT_VIDEO)) == 0

    private static var lastError: String {
        guard let text = SDL_GetError() else { return "SDL failed" }
        let message = String(cString: text)
        return message.isEmpty ? "SDL failed" : message
    }

    /// The renderer, made the first time: software rendering works under any X server (Xvfb included),
    /// and a movie's pictures need no more than a copy, a turn and a scale.
    private func softwareRenderer() -> OpaquePointer? {
        if let renderer { return renderer }
        renderer = SDL_CreateRenderer(window, -1, UInt32(SDL_RENDERER_SOFTWARE.rawValue))
        if let renderer { SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255) }
        return renderer
    }

    /// Copies a picture of the window's size, not turned, straight into the window's pixels and shows
    /// them: one copy, where the renderer would copy it into a texture, clear the window and copy the
    /// texture in. False when the window's pixels are not 32-bit BGR (the renderer converts then).
    private func copyIntoWindow(_ pixels: UnsafeRawPointer, bytesPerRow: Int) -> Bool {
        guard renderer == nil, let surface = SDL_GetWindowSurface(window), let format = surface.pointee.format,
              format.pointee.format == UInt32(SDL_PIXELFORMAT_RGB888.rawValue) || format.pointee.format == UInt32(SDL_PIXELFORMAT_ARGB8888.rawValue),
              Int(surface.pointee.w) == width, Int(surface.pointee.h) == height, bytesPerRow >= width * 4 else { return false }
        let locks = surface.pointee.flags & UInt32(SDL_RLEACCEL) != 0
        if locks && SDL_LockSurface(surface) != 0 { return false }
        if let destination = surface.pointee.pixels {
            let pitch = Int(surface.pointee.pitch)
            for row in 0..<height {
                (destination + row * pitch).copyMemory(from: pixels + row * bytesPerRow, byteCount: width * 4)
            }
        }
        if locks { SDL_UnlockSurface(surface) }
        SDL_UpdateWindowSurface(window)
        return true
    }

    /// Shows a `width` x `height` BGRA picture (`bytesPerRow` apart), turned clockwise by `degrees`
    /// (a multiple of 90: the video's preferred transform) and scaled to fill the window. A picture
    /// of the window's size that is not turned is copied once into the window's pixels; others go
    /// through SDL's software renderer (a copy into a texture, then a turned and scaled copy).
    package func show(bgra pixels: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int, degrees: Int) {
        guard width > 0, height > 0 else { return }
        if degrees % 360 == 0, width == self.width, height == self.height, copyIntoWindow(pixels, bytesPerRow: bytesPerRow) { return }
        guard let renderer = softwareRenderer() else { return }
        if texture == nil || textureSize != (width, height) {
            if let texture { SDL_DestroyTexture(texture) }
            // ARGB8888 is a 32-bit word per pixel: on a little-endian machine its bytes are B, G, R, A.
            texture = SDL_CreateTexture(renderer, UInt32(SDL_PIXELFORMAT_ARGB8888.rawValue), Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                        Int32(clamping: width), Int32(clamping: height))
            textureSize = (width, height)
        }
        guard let texture else { return }
        SDL_UpdateTexture(texture, nil, pixels, Int32(clamping: bytesPerRow))
        SDL_RenderClear(renderer)
        let turned = degrees % 180 != 0
        // The picture's box before turning, centred on the window, so that turning it fills the window.
        let (boxWidth, boxHeight) = turned ? (self.height, self.width) : (self.width, self.height)
        var box = SDL_Rect(x: Int32((self.width - boxWidth) / 2), y: Int32((self.height - boxHeight) / 2),
                           w: Int32(boxWidth), h: Int32(boxHeight))
        if degrees % 360 == 0 {
            SDL_RenderCopy(renderer, texture, nil, &box)
        } else {
            SDL_RenderCopyEx(renderer, texture, nil, &box, Double(degrees), nil, SDL_FLIP_NONE)
        }
        SDL_RenderPresent(renderer)
    }

    /// The events since the last call.
    package func events() -> [Event] {
        var found: [Event] = []
        var key: Int32 = 0
        while true {
            switch avocet_sdl_poll(&key) {
            case Int32(AVOCET_SDL_QUIT): found.append(.quit)
            case Int32(AVOCET_SDL_KEY):
                if key == avocet_sdl_key_left() {
                    found.append(.left)
                } else if key == avocet_sdl_key_right() {
                    found.append(.right)
                } else if let scalar = Unicode.Scalar(UInt32(truncatingIfNeeded: key)), scalar.isASCII {
                    found.append(.key(Character(scalar)))
                }
            default: return found
            }
        }
    }
}

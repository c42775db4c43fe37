#ifndef AVOCET_CSDL2_SHIM_H
#define AVOCET_CSDL2_SHIM_H
// SDL2 for avtool's video window. SDL keeps the program's own main.
#define SDL_MAIN_HANDLED 1
#include <SDL2/SDL.h>

// SDL's event union and key codes, read in C so Swift sees plain values.
enum { AVOCET_SDL_NONE = 0, AVOCET_SDL_QUIT = 1, AVOCET_SDL_KEY = 2 };

static inline int avocet_sdl_poll(int *key) {
    SDL_Event event;
    while (SDL_PollEvent(&event)) {
        if (event.type == SDL_QUIT) return AVOCET_SDL_QUIT;
        if (event.type == SDL_KEYDOWN) {
            *key = event.key.keysym.sym;
            return AVOCET_SDL_KEY;
        }
    }
    return AVOCET_SDL_NONE;
}

static inline SDL_Window *avocet_sdl_window(const char *title, int width, int height) {
    // At the screen's corner: a window manager may move it; under a bare X server it stays there.
    return SDL_CreateWindow(title, 0, 0, width, height, SDL_WINDOW_SHOWN);
}

static inline int avocet_sdl_key_left(void) { return SDLK_LEFT; }
static inline int avocet_sdl_key_right(void) { return SDLK_RIGHT; }
#endif

/* symbols.h — placeholder, the API lands in the next commit. */
#ifndef KP_SYMBOLS_SYMBOLS_H
#define KP_SYMBOLS_SYMBOLS_H
struct kp_symbols;
#endif

/** Exit status for a bad setting (sysexits EX_CONFIG): supervisors can tell it from a crash. */
export const EXIT_CONFIG = 78;

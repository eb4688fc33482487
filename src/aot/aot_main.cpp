// main() of jx::aot generators: they register functions with JX_AOT_FUNCTION and link this.
#include <jx/aot.h>

int main(int argc, char **argv) { return jx::aot::generator_main(argc, argv); }

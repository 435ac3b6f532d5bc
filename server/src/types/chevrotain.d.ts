// chevrotain 11 ships ESM only and exports no `require` condition. tsconfig `paths` maps
// 'chevrotain' to its ESM bundle so that tsx (CommonJS) and esbuild load it; this declaration
// gives that untyped path the package's own types.
declare module 'chevrotain' {
  export * from 'chevrotain-types';
}
